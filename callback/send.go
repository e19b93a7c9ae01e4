package callback

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/askbridge/askbridge/broker"
)

// send makes one signed POST and classifies the answer. The receiver's
// body is read (a little, so that the connection can be reused) and
// thrown away: it never reaches last_error or the logs.
func (d *Deliverer) send(ctx context.Context, del broker.Delivery, body []byte, secret string) outcome {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(body))
	if err != nil {
		return outcome{class: "bad URL", err: fmt.Errorf("build request: %w", err), permanent: true}
	}
	now := d.cfg.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askbridge-callback/1")
	req.Header.Set(HeaderDelivery, del.ID)
	req.Header.Set(HeaderQuestion, del.QuestionID)
	req.Header.Set(HeaderAttempt, strconv.Itoa(del.Attempts))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(secret, now, body))
	resp, err := d.cfg.client.Do(req)
	if err != nil {
		err = unwrapURL(err)
		class := netClass(err)
		// A blocked address is the bridge's own rule: another attempt
		// would meet it again.
		return outcome{class: class, err: fmt.Errorf("POST %s: %w", redact(del.URL), err), permanent: class == classBlocked}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return classify(resp, now)
}

// redact drops credentials, query and fragment from a URL for logs and
// errors: they may hold tokens.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// unwrapURL drops the *url.Error wrapper, whose text repeats the full URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
