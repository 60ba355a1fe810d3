// Package version owns `graftctl version`: graftctl's own build version and,
// when the API server answers, the server's, in kubectl version's layout.
package version
