package controlplane

import (
	"context"
	"os"
	"time"
)

// Process is a child process started by StartProcess, as the control plane
// starts etcd and kube-apiserver: in its own process group, killed when the
// caller dies, its output appended to DIR/NAME.log.
type Process struct{ p *process }

// StartProcess starts bin with args; its output goes to dir/name.log.
func StartProcess(dir, name, bin string, args ...string) (*Process, error) {
	p, err := startProcess(dir, name, false, bin, args...)
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.p.pid() }

// Exited returns an error once the process has ended, nil while it runs.
func (p *Process) Exited() error { return p.p.exited() }

// WaitHTTP polls url (plain HTTP or HTTPS without verification, for probes)
// until it answers 200, the timeout passes or the process exits.
func (p *Process) WaitHTTP(ctx context.Context, url string, timeout time.Duration) error {
	return waitHTTP(ctx, url, nil, timeout, p.p.exited)
}

// Running tells whether the process has not ended.
func (p *Process) Running() bool { return p.p.exited() == nil }

// Wait waits for the process to end and returns how it did.
func (p *Process) Wait() *os.ProcessState {
	<-p.p.done
	return p.p.cmd.ProcessState
}

// Signal sends sig to the process; an error once it has ended.
func (p *Process) Signal(sig os.Signal) error {
	if err := p.p.exited(); err != nil {
		return err
	}
	return p.p.cmd.Process.Signal(sig)
}

// Log is the path of the file the process's output is appended to.
func (p *Process) Log() string { return p.p.log }

// Stop sends SIGTERM, waits up to 15 s for the process to end and kills it
// after that.
func (p *Process) Stop() error { return stopCmd(p.p) }

// APIServerPID is the process id of the control plane's kube-apiserver.
func (cp *ControlPlane) APIServerPID() int { return cp.apiserver.pid() }

// EtcdPID is the process id of the control plane's etcd.
func (cp *ControlPlane) EtcdPID() int { return cp.etcd.pid() }
