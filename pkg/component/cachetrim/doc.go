// Package cachetrim owns what graft's daemons keep of an object in their
// informer caches: Transform, Placement and Unbound are the informers'
// transforms. docs/daemons.md says what each keeps and why.
package cachetrim
