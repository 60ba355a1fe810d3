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

// TestReadMachineCPUCountsThisProcess: the machine's busy time grows at least
// by what this process spins, and never passes its total time.
func TestReadMachineCPUCountsThisProcess(t *testing.T) {
	busy0, total0, err := ReadMachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	own0, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x := 0
	for {
		for i := range 1000000 {
			x += i
		}
		own, err := ReadCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if own-own0 >= 100*time.Millisecond {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%s of CPU time counted after 30 s of spinning", own-own0)
		}
	}
	busy, total, err := ReadMachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Ticks are counted per processor at 100 Hz: allow one tick each.
	slack := time.Duration(runtime.NumCPU()) * 10 * time.Millisecond
	if busy-busy0 < 100*time.Millisecond-slack {
		t.Errorf("machine busy time grew by %s while this process spun 100ms (x=%d)", busy-busy0, x)
	}
	if busy > total || busy-busy0 > total-total0 {
		t.Errorf("busy %s (+%s) exceeds total %s (+%s)", busy, busy-busy0, total, total-total0)
	}
}
