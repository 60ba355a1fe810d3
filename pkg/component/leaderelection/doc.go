// Package leaderelection runs a component's work only while it holds a Lease
// (client-go leaderelection with a Lease lock) and stops the work at once when
// the lease is lost. It also offers a readiness check telling whether the lease
// is held and renewed in time.
package leaderelection
