package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// A child started with this variable set exits at once: the tests need
// children that become zombies, and the test binary is the one program sure
// to be there.
const exitAtOnce = "PAUSE_TEST_EXIT_AT_ONCE"

func TestMain(m *testing.M) {
	if os.Getenv(exitAtOnce) != "" {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startExitingChild(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), exitAtOnce+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Never cmd.Wait: collecting the child is what the code under test does.
	return cmd.Process.Pid
}

// procState is the state letter of /proc/<pid>/stat ("" once the pid is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// pid (comm) state ...; comm may hold spaces, so go from the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// waitReapable waits until the child pid has exited and can be collected,
// without collecting it (waitid with WNOWAIT). The zombie state of
// /proc/<pid>/stat is not enough: it is the main thread's, and a
// multi-threaded child (this test binary) shows it while its other threads
// are still exiting, when wait4 cannot collect it yet.
func waitReapable(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !reapable(t, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d (state %q) not collectable after a minute", pid, procState(pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// siginfo is the part of Linux's siginfo_t that waitid fills for a child:
// si_pid follows si_signo, si_errno, si_code and padding.
type siginfo struct {
	Signo, Errno, Code, _ int32
	Pid                   int32
	_                     [108]byte
}

func reapable(t *testing.T, pid int) bool {
	t.Helper()
	const pPID = 1 // idtype_t P_PID
	var info siginfo
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)),
		syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT, 0, 0)
	if errno != 0 {
		t.Fatalf("waitid for pid %d: %v", pid, errno)
	}
	// With WNOHANG, si_pid stays 0 while the child cannot be collected.
	return info.Pid == int32(pid)
}

func TestReapChildrenCollectsEveryExitedChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	// Three at once: one SIGCHLD may stand for all of them.
	var pids []int
	for range 3 {
		pids = append(pids, startExitingChild(t))
	}
	for _, pid := range pids {
		waitReapable(t, pid)
	}
	if n := reapChildren(); n != 3 {
		t.Fatalf("reapChildren collected %d children, want 3", n)
	}
	for _, pid := range pids {
		if s := procState(pid); s != "" {
			t.Errorf("pid %d is still there (state %s) after reapChildren", pid, s)
		}
	}
	if n := reapChildren(); n != 0 {
		t.Errorf("reapChildren with no children collected %d", n)
	}
}

// TestWaitForStop sends real signals to this process: a child's exit raises
// SIGCHLD, which must be reaped without stopping, then SIGTERM or SIGINT,
// which must stop.
func TestWaitForStop(t *testing.T) {
	for _, stopSig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(stopSig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal, 16)
			signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
			defer signal.Stop(sigs)

			reaped := make(chan int, 16)
			got := make(chan os.Signal, 1)
			go func() {
				got <- waitForStop(sigs, func() int {
					n := reapChildren()
					reaped <- n
					return n
				})
			}()

			pid := startExitingChild(t)
			// The child is collected: proof that waitForStop handled the
			// SIGCHLD and went on waiting.
			deadline := time.After(time.Minute)
			for total := 0; total < 1; {
				select {
				case n := <-reaped:
					total += n
				case sig := <-got:
					t.Fatalf("waitForStop returned %v on a child's exit", sig)
				case <-deadline:
					t.Fatalf("child %d not reaped after a minute (state %q)", pid, procState(pid))
				}
			}
			if err := syscall.Kill(os.Getpid(), stopSig); err != nil {
				t.Fatal(err)
			}
			select {
			case sig := <-got:
				if sig != stopSig {
					t.Fatalf("waitForStop returned %v, want %v", sig, stopSig)
				}
			case <-time.After(time.Minute):
				t.Fatalf("waitForStop still waiting a minute after %v", stopSig)
			}
		})
	}
}
