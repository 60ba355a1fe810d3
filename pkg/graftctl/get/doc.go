// Package get owns `graftctl get seeds` and `graftctl get shoots`: listing them
// as kubectl-style tables (with -o wide columns) or as json, yaml or names.
package get
