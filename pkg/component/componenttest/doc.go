// Package componenttest owns what the daemons' tests need to check the parts
// package component gives them; today, how a registry's metrics read on
// /metrics, so that each daemon's test pins its metrics' declarations.
package componenttest
