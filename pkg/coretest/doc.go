// Package coretest builds graft's core objects for tests, in the style of
// kube-scheduler's st.MakePod().Obj(): MakeSeed, MakeShoot and
// MakeCloudProfile start from an object the algorithm accepts (a ready,
// visible aws seed in eu-west-1; an aws shoot in eu-west-1 whose networks do
// not overlap the seed's; the aws cloud profile), each method changes one
// thing, and Obj returns the object. Every test package that needs seeds,
// shoots or cloud profiles builds them here, so that what "a usable seed"
// means is written once. Gardener's objects are made from these too (see
// pkg/controlplane/gardenerlandscape); FakeGardener serves them to unit tests.
package coretest
