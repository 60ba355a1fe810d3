// Package graftctltest owns the objects graftctl's unit and integration tests
// build landscapes from: seeds the scheduling algorithm accepts, shoots, and
// their cloud profile, and Gardener's seeds in a fake dynamic client; so that
// every test describes only what it changes.
package graftctltest
