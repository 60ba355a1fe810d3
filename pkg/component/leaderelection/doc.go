// Package leaderelection runs a component's work only while it holds a Lease
// (client-go leaderelection with a Lease lock) and stops the work when the
// lease is lost. client-go notices a lost lease only after renewDeadline
// counted from when the process runs again, so the work may go on for that
// long after a pause; an Elector with a Fence therefore reports every
// successful renewal to it, and the fence (package fence) refuses the
// component's writes as soon as the last renewal is older than the renew
// deadline. It also offers a readiness check telling whether the lease is
// held and renewed in time.
package leaderelection
