package writes

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Kind is one sort of write: the API verb and the resource, with its
// subresource ("patch shoots", "update shoots/status", "create events").
type Kind struct {
	Verb, Resource string
}

func (k Kind) String() string { return k.Verb + " " + k.Resource }

// Counts are writes by kind.
type Counts map[Kind]int

// Total is the number of writes of every kind.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Minus returns c less d, kind by kind, never below zero.
func (c Counts) Minus(d Counts) Counts {
	out := Counts{}
	for k, v := range c {
		if r := v - d[k]; r > 0 {
			out[k] = r
		}
	}
	return out
}

// Plus returns c and d added kind by kind.
func (c Counts) Plus(d Counts) Counts {
	out := Counts{}
	for k, v := range c {
		out[k] += v
	}
	for k, v := range d {
		out[k] += v
	}
	return out
}

// Diff describes how c differs from d ("" when they are equal):
// "patch events 3 against 5".
func (c Counts) Diff(d Counts) string {
	var parts []string
	for _, k := range kindsOf(c, d) {
		if c[k] != d[k] {
			parts = append(parts, fmt.Sprintf("%s %d against %d", k, c[k], d[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// kindsOf lists the kinds of c and d, sorted by name.
func kindsOf(c, d Counts) []Kind {
	var kinds []Kind
	for k := range c.Plus(d) {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b Kind) int { return strings.Compare(a.String(), b.String()) })
	return kinds
}

// String lists the kinds in a stable order: "create events 5000, patch shoots 5000".
func (c Counts) String() string {
	kinds := make([]Kind, 0, len(c))
	for k, v := range c {
		if v > 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return "none"
	}
	slices.SortFunc(kinds, func(a, b Kind) int { return strings.Compare(a.String(), b.String()) })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}

// Counter counts the writes made through the REST configs it wrapped.
// Leases are counted apart: leader election renews them whatever the work.
type Counter struct {
	mu       sync.Mutex
	ok       Counts
	failed   Counts
	answers  map[int]int
	leases   int
	inflight int
	peak     int
	// busy integrates the writes in flight over time since start.
	busy    time.Duration
	start   time.Time
	changed time.Time
	lastAck time.Time
}

// NewCounter returns a counter whose window starts now.
func NewCounter() *Counter {
	c := &Counter{}
	c.Reset()
	return c
}

// Reset starts a new window: the counts, the peak and the last
// acknowledgement start over; writes already in flight stay in flight.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.ok, c.failed, c.answers, c.leases = Counts{}, Counts{}, map[int]int{}, 0
	c.peak, c.busy = c.inflight, 0
	c.start, c.changed, c.lastAck = now, now, time.Time{}
}

// Stats are a window's figures.
type Stats struct {
	// OK are the writes the API server accepted, Failed those it refused
	// (conflicts, mostly); Leases the Lease writes, in neither.
	OK, Failed Counts
	// Answers counts the refused writes by the API server's status code
	// (0: no answer): a failed JSON patch test (422) costs the API server a
	// read, a conflict (409) also a new decision by the component.
	Answers map[int]int
	Leases  int
	// Peak is the most writes in flight at once, Mean their average from
	// the window's start to the last acknowledgement.
	Peak int
	Mean float64
	// LastAck is when the last write's response arrived (zero: no write).
	LastAck time.Time
	Start   time.Time
}

// Stats returns the current window's figures.
func (c *Counter) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{OK: Counts{}, Failed: Counts{}, Answers: maps.Clone(c.answers), Leases: c.leases, Peak: c.peak, LastAck: c.lastAck, Start: c.start}
	for k, v := range c.ok {
		s.OK[k] = v
	}
	for k, v := range c.failed {
		s.Failed[k] = v
	}
	if span := c.lastAck.Sub(c.start); span > 0 {
		busy := c.busy
		if c.changed.Before(c.lastAck) {
			busy += time.Duration(c.inflight) * c.lastAck.Sub(c.changed)
		}
		s.Mean = busy.Seconds() / span.Seconds()
	}
	return s
}

// String reads "create events 5000, patch shoots 5000 (0 refused); peak 32
// writes in flight, mean 27.4", or with refusals "... (12 refused: patch
// shoots 12; answered 409 x2, 422 x10); ...".
func (s Stats) String() string {
	out := fmt.Sprintf("%s (%d refused", s.OK, s.Failed.Total())
	if s.Failed.Total() > 0 {
		out += ": " + s.Failed.String()
		var answers []string
		for _, code := range slices.Sorted(maps.Keys(s.Answers)) {
			answers = append(answers, fmt.Sprintf("%d x%d", code, s.Answers[code]))
		}
		out += "; answered " + strings.Join(answers, ", ")
	}
	return out + fmt.Sprintf("); peak %d writes in flight, mean %.1f", s.Peak, s.Mean)
}

// Wrap returns a copy of cfg whose requests are counted.
func (c *Counter) Wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{counter: c, next: rt} })
	return cfg
}

// advance accounts the writes in flight up to now; c.mu is held.
func (c *Counter) advance(now time.Time) {
	if now.After(c.changed) {
		if c.changed.Before(c.start) {
			c.changed = c.start
		}
		c.busy += time.Duration(c.inflight) * now.Sub(c.changed)
		c.changed = now
	}
}

func (c *Counter) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(time.Now())
	c.inflight++
	c.peak = max(c.peak, c.inflight)
}

func (c *Counter) end(k Kind, code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.advance(now)
	c.inflight--
	c.lastAck = now
	if code >= 200 && code < 300 {
		c.ok[k]++
	} else {
		c.failed[k]++
		c.answers[code]++
	}
}

type countingTransport struct {
	counter *Counter
	next    http.RoundTripper
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	k, write := KindOf(req)
	if !write {
		return t.next.RoundTrip(req)
	}
	if k.Resource == "leases" {
		resp, err := t.next.RoundTrip(req)
		t.counter.mu.Lock()
		t.counter.leases++
		t.counter.mu.Unlock()
		return resp, err
	}
	t.counter.begin()
	resp, err := t.next.RoundTrip(req)
	code := 0
	if err == nil {
		code = resp.StatusCode
	}
	t.counter.end(k, code)
	return resp, err
}

// KindOf names a request's write; write is false for reads and watches.
func KindOf(req *http.Request) (k Kind, write bool) {
	switch req.Method {
	case http.MethodPost:
		k.Verb = "create"
	case http.MethodPut:
		k.Verb = "update"
	case http.MethodPatch:
		k.Verb = "patch"
	case http.MethodDelete:
		k.Verb = "delete"
	default:
		return Kind{}, false
	}
	seg := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(seg) > 2 && seg[0] == "api":
		seg = seg[2:]
	case len(seg) > 3 && seg[0] == "apis":
		seg = seg[3:]
	default:
		k.Resource = req.URL.Path
		return k, true
	}
	if len(seg) > 2 && seg[0] == "namespaces" {
		seg = seg[2:]
	}
	k.Resource = seg[0]
	if len(seg) > 2 {
		k.Resource += "/" + strings.Join(seg[2:], "/")
	}
	if k.Verb == "delete" && len(seg) == 1 {
		k.Verb = "deletecollection"
	}
	return k, true
}
