// Command configref writes docs/configuration.md, the reference of the
// daemons' configuration files, from the types of config.graft.dev/v1alpha1:
// every field with its default (the defaulting code's result on an empty
// file) and its documentation comment, which states what is valid. Its test
// fails when the committed reference differs from what it writes, so that
// the reference cannot drift from the types.
package main
