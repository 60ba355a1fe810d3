// Command localgarden is the Go side of hack/local-garden.sh.
package main
