package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
)

// The freshness of the inventory that the scheduled pull reports (docs/inventory.md):
// the glue hands the pull's status from the pointer's KV metadata to SetFeedStatus,
// and the index (GET {base}/) states it in its member "feed".

// feedStatus is the scheduled pull's last status; set is false until one is given
// (an inventory published by hand, or none).
type feedStatus struct {
	set      bool
	takenAt  int64  // unix ms when the pull took the inventory serving (0: not the pull)
	failedAt int64  // unix ms of the first failed run since the last good one (0: none)
	reason   string // why the last run failed
	maxAge   int64  // FEED_MAX_AGE_SECONDS (0: no bound)
	stale    bool   // the index was rendered stale
}

// SetFeedStatus takes the scheduled pull's status, "takenAt failedAt maxAge\nreason"
// (unix ms, unix ms, seconds; 0 for none), and reports it in the index from the next
// request on. Text that does not parse clears the report.
func (s *Server) SetFeedStatus(b []byte) {
	var f feedStatus
	var nums [3]int64
	i := 0
	for k := range nums {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 16 {
			nums[k] = nums[k]*10 + int64(b[i]-'0')
			i++
		}
		want := byte(' ')
		if k == 2 {
			want = '\n'
		}
		if i == start || i >= len(b) || b[i] != want {
			s.feed = feedStatus{}
			s.indexDoc = cached{}
			return
		}
		i++
	}
	f.set, f.takenAt, f.failedAt, f.maxAge = true, nums[0], nums[1], nums[2]
	if f.failedAt != 0 {
		f.reason = string(b[i:])
	}
	s.feed = f
	s.indexDoc = cached{}
}

// feedStaleAt returns the unix ms from which the index reports the inventory stale:
// FEED_MAX_AGE_SECONDS after the first failed run, when the pulls have failed since
// (what serves was last confirmed before then); 0 when never.
func (f *feedStatus) staleAt() int64 {
	if !f.set || f.failedAt == 0 || f.maxAge == 0 {
		return 0
	}
	return f.failedAt + f.maxAge*1000
}

// checkFeedStale re-renders the index once when it turns stale at nowMs.
func (s *Server) checkFeedStale(nowMs int64) {
	if at := s.feed.staleAt(); at != 0 && !s.feed.stale && nowMs >= at {
		s.feed.stale = true
		s.indexDoc = cached{}
	}
}

// appendFeedInfo writes the index's member "feed" (nothing without a status).
func (s *Server) appendFeedInfo(b []byte) []byte {
	f := &s.feed
	if !f.set {
		return b
	}
	b = bytebuf.Put(b, `,"feed":{"takenAt":`)
	b = appendMsTime(b, f.takenAt)
	b = bytebuf.Put(b, `,"failingSince":`)
	b = appendMsTime(b, f.failedAt)
	b = bytebuf.Put(b, `,"lastFailure":`)
	if f.failedAt == 0 {
		b = bytebuf.Put(b, "null")
	} else {
		b = jsonw.AppendJSONString(b, f.reason)
	}
	b = bytebuf.Put(b, `,"maxAgeSeconds":`)
	if f.maxAge == 0 {
		b = bytebuf.Put(b, "null")
	} else {
		b = jsonw.AppendInt(b, f.maxAge)
	}
	if f.stale {
		return bytebuf.Put(b, `,"stale":true}`)
	}
	return bytebuf.Put(b, `,"stale":false}`)
}

// appendMsTime writes unix ms as a quoted RFC 3339 time, or null for 0.
func appendMsTime(b []byte, ms int64) []byte {
	if ms == 0 {
		return bytebuf.Put(b, "null")
	}
	return bytebuf.PutByte(appendRFC3339(bytebuf.PutByte(b, '"'), ms/1000), '"')
}
