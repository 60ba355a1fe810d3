// Command graftctl is the operator CLI; see package pkg/graftctl.
package main
