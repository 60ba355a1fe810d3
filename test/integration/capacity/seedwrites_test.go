//go:build integration

package capacity

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
)

// seedsPath is the path of the seeds collection; a write to one seed is
// seedsPath/<name>, to its status seedsPath/<name>/status.
const seedsPath = "/apis/core.graft.dev/v1alpha1/seeds/"

// seedWrite is one write the annotator sent to a seed and the API server
// accepted.
type seedWrite struct {
	seed, subresource string
	body              string
}

// seedWrites records the writes to seeds that pass through its transport,
// those the API server accepted and those it refused: a client-side count
// of what the annotator really sent, independent of its own metrics.
type seedWrites struct {
	mu       sync.Mutex
	accepted []seedWrite
	// refused are the writes the API server answered with an error.
	refused []seedWrite
}

// wrap is a transport.WrapperFunc.
func (w *seedWrites) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		seed, sub, ok := seedWriteOf(req)
		if !ok {
			return next.RoundTrip(req)
		}
		var body []byte
		if req.Body != nil {
			var err error
			if body, err = io.ReadAll(req.Body); err != nil {
				return nil, err
			}
			req.Body.Close()
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := next.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		write := seedWrite{seed: seed, subresource: sub, body: string(body)}
		w.mu.Lock()
		if resp.StatusCode/100 == 2 {
			w.accepted = append(w.accepted, write)
		} else {
			w.refused = append(w.refused, write)
		}
		w.mu.Unlock()
		return resp, nil
	})
}

// seedWriteOf tells whether req writes one seed, which, and its subresource
// ("" for the seed itself).
func seedWriteOf(req *http.Request) (seed, subresource string, ok bool) {
	if req.Method == http.MethodGet || req.Method == http.MethodHead || !strings.HasPrefix(req.URL.Path, seedsPath) {
		return "", "", false
	}
	seed, subresource, _ = strings.Cut(strings.TrimPrefix(req.URL.Path, seedsPath), "/")
	return seed, subresource, seed != ""
}

// count returns how many accepted writes of the given subresource went to
// seeds that keep says to count.
func (w *seedWrites) count(subresource string, keep func(seed string) bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, s := range w.accepted {
		if s.subresource == subresource && keep(s.seed) {
			n++
		}
	}
	return n
}

// refusals returns how many writes to seeds that keep says to count the
// API server refused.
func (w *seedWrites) refusals(keep func(seed string) bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, s := range w.refused {
		if keep(s.seed) {
			n++
		}
	}
	return n
}

// repeated returns the accepted writes of the given subresource to seeds
// written more than once, by seed, to explain a count.
func (w *seedWrites) repeated(subresource string, keep func(seed string) bool) map[string][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	bySeed := map[string][]string{}
	for _, s := range w.accepted {
		if s.subresource == subresource && keep(s.seed) {
			bySeed[s.seed] = append(bySeed[s.seed], s.body)
		}
	}
	for seed, bodies := range bySeed {
		if len(bodies) < 2 {
			delete(bySeed, seed)
		}
	}
	return bySeed
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
