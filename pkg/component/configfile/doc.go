// Package configfile loads a component configuration file (config.graft.dev/v1alpha1):
// strict decoding (an unknown or duplicate field is an error naming it), a check of
// apiVersion and kind, defaulting and validation reporting every invalid field.
package configfile
