//go:build integration

package capacity

import (
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/transport"
)

// lagSeedWatch returns a transport.WrapperFunc that hands the annotator
// every byte of its watches of seeds lag after the API server sent it, as
// a loaded API server's watch lags behind its writes: the annotator's view
// of seeds shows its own writes only lag after it made them.
func lagSeedWatch(lag time.Duration) transport.WrapperFunc {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			if err != nil || req.URL.Query().Get("watch") != "true" || !strings.HasPrefix(req.URL.Path, strings.TrimSuffix(seedsPath, "/")) {
				return resp, err
			}
			resp.Body = newLaggingBody(resp.Body, lag)
			return resp, nil
		})
	}
}

// chunk is what one read of the API server's stream returned, and when.
type chunk struct {
	data []byte
	at   time.Time
	err  error
}

// laggingBody reads its stream as it comes and hands each chunk on lag
// after it arrived, in order.
type laggingBody struct {
	src     io.ReadCloser
	lag     time.Duration
	chunks  chan chunk
	pending []byte
}

func newLaggingBody(src io.ReadCloser, lag time.Duration) *laggingBody {
	b := &laggingBody{src: src, lag: lag, chunks: make(chan chunk, 4096)}
	go b.pump()
	return b
}

func (b *laggingBody) pump() {
	defer close(b.chunks)
	for {
		buf := make([]byte, 32*1024)
		n, err := b.src.Read(buf)
		b.chunks <- chunk{data: buf[:n], at: time.Now(), err: err}
		if err != nil {
			return
		}
	}
}

func (b *laggingBody) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		c, ok := <-b.chunks
		if !ok {
			return 0, io.EOF
		}
		if wait := time.Until(c.at.Add(b.lag)); wait > 0 {
			time.Sleep(wait)
		}
		if len(c.data) == 0 {
			return 0, c.err
		}
		b.pending = c.data
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *laggingBody) Close() error { return b.src.Close() }
