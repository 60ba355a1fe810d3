package daemon

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestReadCPUCountsThisProcess: the CPU time read from /proc grows while
// this process computes, and by no more than the wall time allows on the
// machine's cores.
func TestReadCPUCountsThisProcess(t *testing.T) {
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x := 0
	var used time.Duration
	for used < 50*time.Millisecond {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%s of CPU time counted after 30 s of spinning", used)
		}
		for i := range 1000000 {
			x += i
		}
		after, err := ReadCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		used = after - before
	}
	// One clock tick of slack for the reading's granularity.
	if limit := time.Since(start)*time.Duration(runtime.NumCPU()) + time.Second/clockTicks; used > limit {
		t.Errorf("CPU time used %s exceeds %s of wall time on %d cores (%d)", used, time.Since(start), runtime.NumCPU(), x)
	}
}
