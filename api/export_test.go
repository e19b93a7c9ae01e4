package api

import "time"

// SetParking sets how long long-polls wait before they park, and how many
// may wait so at once.
func SetParking(s *Server, after time.Duration, most int64) {
	s.parkAfter, s.unparkedMax = after, most
}
