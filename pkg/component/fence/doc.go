// Package fence keeps a leader-elected replica from writing once it can no
// longer be sure it leads. The API server knows no fencing token, and
// client-go's leader election stops the work only after renewDeadline counted
// from when the process runs again, so a replica paused past its lease (a
// SIGSTOP, a VM or GC pause) resumes believing it leads, with caches as old as
// the pause. A Fence is opened by each successful renewal of the lease and
// closes by itself when the last one is older than the renew deadline; every
// mutating request of the component's clients passes through its transport,
// which refuses the request while the fence is closed. After a gap in
// renewals a replica that still leads writes again only once its informers
// have caught up with a fresh read from the API server.
package fence
