// Package ownwrites owns what a graft daemon remembers of its own writes
// until its informer shows them: per object, the object the API server
// returned for the daemon's last write, and so the resourceVersion the
// informer must reach before its views are current again. Until then a view
// older than the write is stale (the daemon would act on a state it has
// already changed), and the written object is fresher than the cache.
//
// graft-scheduler keeps its bindings here, graft-descheduler its evictions
// and timeAdded stamps, graft-capacity-annotator its seed writes.
// resourceVersions are ordered with apimachinery's resourceversion package;
// a write whose version cannot be ordered (never one an API server sends) is
// not remembered, and views are then taken as they come.
package ownwrites
