// Package charts renders, lints and applies graft's Helm charts (charts/) for
// tests: the chart tests in this directory (build tag integration) and the
// end-to-end suite, which applies the RBAC the charts create so that every
// component runs with exactly the permissions its chart grants.
package charts
