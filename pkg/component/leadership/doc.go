// Package leadership keeps a component's work and writes to the replica that
// holds its Lease, and only while it can be sure it still does.
//
// An Elector runs the work under a Lease (client-go leaderelection with a
// Lease lock) and stops it when the lease is lost; it also offers a readiness
// check telling whether the lease is held and renewed in time. client-go
// notices a lost lease only after renewDeadline counted from when the process
// runs again, so a replica paused past its lease (a SIGSTOP, a VM or GC pause)
// resumes believing it leads, with caches as old as the pause, and the API
// server knows no fencing token. A Fence closes that window: an Elector
// reports every successful renewal to it, the fence stays open only while the
// last renewal is younger than the renew deadline, and every mutating request
// of the component's clients passes through its transport, which refuses the
// request while the fence is closed. After a gap in renewals a replica that
// still leads writes again only once its informers have caught up with a
// fresh read from the API server.
//
// A Publisher writes what the leader applies onto its Lease as an annotation,
// for graftctl and the other daemons to read.
package leadership
