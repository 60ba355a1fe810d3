// Package capacity is graft-capacity-annotator. It owns two loops:
//   - the annotator (controller.go, annotator.go): it keeps every seed's
//     status.capacity, status.allocatable and status.usage current and, when
//     the configuration asks for it, turns seed health into not-ready taints;
//   - the forecast loop (forecaster.go), while leading: every period it
//     computes each region's and pool's forecast (package forecast),
//     publishes it as metrics and on the Lease, and hands it to package
//     poolscaler, whose own loop decides and takes each scaled pool's step.
//
// docs/daemons.md describes the annotator, its writes and its metrics;
// docs/operations.md ("Seeds that grow with demand") the forecast and the
// scaler.
package capacity
