// Package landscapegen generates the gardens the end-to-end scenarios run in:
// cloud profiles, ready seeds with capacity and shoots of mixed purposes,
// deterministically from a Spec. Each landscape carries a scenario label, and
// its cloud profiles select only its own seeds, so scenarios sharing one API
// server (and one scheduler) cannot place shoots on each other's seeds.
package landscapegen
