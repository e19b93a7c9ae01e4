package telegram

import (
	"context"
	"errors"
	"fmt"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/download"
)

// messageFiles returns the file of m as a broker attachment: the largest
// size of a photo (Telegram lists a photo in several sizes, largest
// last), or a document with the name and type its sender's client
// declared. Nothing is downloaded until the broker, having checked that
// the person may answer, fetches it.
func (c *Channel) messageFiles(m *tgbotapi.Message) []broker.Attachment {
	switch {
	case len(m.Photo) > 0:
		p := m.Photo[len(m.Photo)-1]
		return []broker.Attachment{{Type: "image/jpeg", Size: int64(p.FileSize), Fetch: c.fetcher(p.FileID)}}
	case m.Document != nil:
		d := m.Document
		return []broker.Attachment{{Name: d.FileName, Type: d.MimeType, Size: int64(d.FileSize), Fetch: c.fetcher(d.FileID)}}
	}
	return nil
}

// fetcher downloads a file the way the Bot API says: getFile gives its
// file_path, then GET <api_url>/file/bot<token>/<file_path>. Errors never
// carry the token.
func (c *Channel) fetcher(fileID string) func(ctx context.Context, max int64) ([]byte, error) {
	return func(ctx context.Context, max int64) ([]byte, error) {
		var f tgbotapi.File
		err := c.call(ctx, "getFile", func(bot *tgbotapi.BotAPI) error {
			var err error
			f, err = bot.GetFile(tgbotapi.FileConfig{FileID: fileID})
			return err
		})
		if err != nil {
			return nil, err
		}
		if f.FilePath == "" {
			return nil, errors.New("telegram: getFile: no file_path in the answer")
		}
		data, err := download.Get(ctx, c.http, c.cfg.APIURL+"/file/bot"+c.token+"/"+f.FilePath, nil, max)
		if err != nil {
			return nil, fmt.Errorf("telegram: %w", c.redact(err))
		}
		return data, nil
	}
}
