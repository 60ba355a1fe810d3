// Package taint owns `graftctl taint seed`: adding, overwriting and removing
// seed taints with kubectl taint's arguments, flags, output and messages.
package taint
