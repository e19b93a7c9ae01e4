package callback

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// dnsStub answers DNS queries from a table, name → addresses, in-process:
// its resolver's connections are pipes, so no query leaves the test and
// the system's resolver is never asked. A name not in the table does not
// exist (NXDOMAIN).
type dnsStub struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
}

func newDNSStub(names map[string]string) *dnsStub {
	s := &dnsStub{names: map[string][]netip.Addr{}}
	for n, a := range names {
		s.names[strings.ToLower(n)] = append(s.names[strings.ToLower(n)], netip.MustParseAddr(a))
	}
	return s
}

// resolver returns a Go resolver that asks only the stub.
func (s *dnsStub) resolver(t testing.TB) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		go s.serve(t, server)
		return client, nil
	}}
}

// serve answers the queries on one stream connection (each message with a
// two-byte length before it) until the client closes it.
func (s *dnsStub) serve(t testing.TB, c net.Conn) {
	defer c.Close()
	for {
		var n uint16
		if err := binary.Read(c, binary.BigEndian, &n); err != nil {
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		resp := s.answer(q)
		if resp == nil {
			t.Errorf("dns stub: cannot parse query %x", q)
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
		if _, err := c.Write(append(out, resp...)); err != nil {
			return
		}
	}
}

// answer builds the response to query q: its question, and an A or AAAA
// record for each address of the asked type.
func (s *dnsStub) answer(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	question := q[12 : i+5]
	qtype := binary.BigEndian.Uint16(q[i+1:])
	name := strings.ToLower(strings.Join(labels, "."))

	s.mu.Lock()
	addrs, known := s.names[name]
	s.mu.Unlock()
	var answers [][]byte
	for _, a := range addrs {
		var rr []byte
		switch {
		case qtype == 1 && a.Is4():
			rr = a.AsSlice()
		case qtype == 28 && a.Is6():
			b := a.As16()
			rr = b[:]
		default:
			continue
		}
		ans := []byte{0xc0, 12} // the name: a pointer to the question's
		ans = binary.BigEndian.AppendUint16(ans, qtype)
		ans = binary.BigEndian.AppendUint16(ans, 1) // class IN
		ans = binary.BigEndian.AppendUint32(ans, 60)
		ans = binary.BigEndian.AppendUint16(ans, uint16(len(rr)))
		answers = append(answers, append(ans, rr...))
	}
	flags := uint16(0x8180) // a response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	h := append([]byte{}, q[0:2]...)
	h = binary.BigEndian.AppendUint16(h, flags)
	h = binary.BigEndian.AppendUint16(h, 1)
	h = binary.BigEndian.AppendUint16(h, uint16(len(answers)))
	h = binary.BigEndian.AppendUint16(h, 0)
	h = binary.BigEndian.AppendUint16(h, 0)
	h = append(h, question...)
	for _, a := range answers {
		h = append(h, a...)
	}
	return h
}
