// Command demo applies the sample landscape for hack/demo.sh.
package main
