package node

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// start runs bin detached from the calling process (it outlives
// hack/local-garden.sh up; Down stops it), logging to <dir>/<name>.log and
// recording its pid in <dir>/<name>.pid.
func start(dir, name, bin string, args ...string) (*os.Process, error) {
	logFile, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C in the shell that ran `up` must not
	// reach the node.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	// Reap the child when it exits so that exited() sees it gone rather than
	// a zombie.
	go func() { _ = cmd.Wait() }()
	return cmd.Process, nil
}

// alive reports whether the process recorded as name in dir runs. A pid is
// only trusted when the process's command line names dir: after a reboot or a
// long time the number may belong to someone else.
func alive(dir, name string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, name+".pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, ownedBy(pid, dir)
}

// ownedBy reports whether process pid runs and mentions dir on its command
// line (every process the node starts does, through its flags or config).
func ownedBy(pid int, dir string) bool {
	cmdline, err := commandLine(pid)
	if err != nil || zombie(pid) {
		return false
	}
	return bytes.Contains(cmdline, []byte(dir))
}

// commandLine reads pid's command line. It is empty for a while after
// exec.Cmd.Start returns: Start returns once the child's exec has passed the
// point of no return, and the kernel fills in the new program's arguments only
// after that. On a loaded machine that window was long enough for a component
// just started to look like somebody else's process (or none), and Up gave up
// on a kube-controller-manager that was starting. So an empty command line is
// read again for a while, unless the process has exited or is a kernel
// thread, whose command line stays empty.
func commandLine(pid int) ([]byte, error) {
	path := fmt.Sprintf("/proc/%d/cmdline", pid)
	for range 100 {
		cmdline, err := os.ReadFile(path)
		if err != nil || len(cmdline) > 0 {
			return cmdline, err
		}
		if st := statOf(pid); st.state == "" || st.state == "Z" || st.kernelThread {
			return cmdline, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, nil
}

// stat is what /proc/<pid>/stat says of a process that graft needs.
type stat struct {
	// state is the main thread's state ("Z" for a zombie), empty when the
	// process is gone.
	state        string
	kernelThread bool
}

// pfKthread is the kernel's PF_KTHREAD process flag.
const pfKthread = 0x00200000

func statOf(pid int) stat {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}
	}
	// After the command name in parentheses: state, ppid, pgrp, session,
	// tty_nr, tpgid, flags, ...
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 7 {
		return stat{}
	}
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return stat{state: f[0], kernelThread: flags&pfKthread != 0}
}

// zombie reports whether pid has exited and only its parent's wait is
// missing.
func zombie(pid int) bool { return statOf(pid).state == "Z" }

// stop sends SIGTERM to the process recorded as name, waits up to grace for
// it to exit, then kills it, and removes the pid file.
func stop(dir, name string, grace time.Duration) error {
	defer os.Remove(filepath.Join(dir, name+".pid"))
	pid, ok := alive(dir, name)
	if !ok {
		return nil
	}
	return terminate(pid, dir, grace)
}

func terminate(pid int, dir string, grace time.Duration) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("stopping process %d: %w", pid, err)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !ownedBy(pid, dir) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for range 50 {
		if !ownedBy(pid, dir) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("process %d did not exit after SIGKILL", pid)
}

// describe says what /proc shows of pid, for an error that claims a
// component exited: whether the number is gone, a zombie, or a process whose
// command line does not name the node's directory.
func describe(pid int, dir string) string {
	if pid <= 0 {
		return "no readable pid file"
	}
	cmdline, err := commandLine(pid)
	if err != nil {
		return fmt.Sprintf("pid %d: %v", pid, err)
	}
	state := statOf(pid).state
	args := strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")
	if len(args) > 200 {
		args = args[:200] + "..."
	}
	return fmt.Sprintf("pid %d: state %s, mentions %s: %t, command line %q", pid, state, dir, bytes.Contains(cmdline, []byte(dir)), args)
}

// processesRunning lists the pids that run the executable bin with dir on
// their command line: a component of this node whose pid file is gone or
// names another process, which Down must still stop.
func processesRunning(bin, dir string) []int {
	if bin == "" {
		return nil
	}
	want, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return nil
	}
	var pids []int
	for _, pid := range processesMentioning(dir) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == want {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processesMentioning lists the pids whose command line contains s, for the
// containerd shims of this node, which containerd starts detached and which
// outlive it.
func processesMentioning(s string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if ownedBy(pid, s) {
			pids = append(pids, pid)
		}
	}
	return pids
}
