// Package cachetrim owns what graft's daemons keep of an object in their
// informer caches. Transform is the transform (client-go's
// cache.TransformFunc) of every informer of graft-scheduler,
// graft-descheduler and graft-capacity-annotator, and of graftctl drain's
// shoot informer; After composes it with a conversion that must run first
// (graft-scheduler's conversion of Gardener's objects into graft's types).
//
// It drops metadata.managedFields, which no code path of theirs reads, from
// every object but Seeds: the one part of a cached object that grows with
// every field manager writing to it, about half of the heap a decoded Shoot
// with five writers takes (BenchmarkCachedShoot).
// graft-capacity-annotator reads a Seed's managedFields to tell whether the
// seed's agent publishes status.capacity, and a garden has few seeds (a
// landscape of 100,000 shoots has hundreds), so Seeds keep them.
//
// Everything else is kept, because objects from the cache are written back:
// graft-descheduler's eviction is an update of the whole cached Shoot,
// which would wipe on the server any field of spec or metadata the cache
// lacked, and graft-scheduler's binding tests the cached labels,
// annotations and status.networking against the server's. managedFields
// are safe to drop: the API server ignores an empty metadata.managedFields
// in an update and keeps the object's own, so an update built from a
// trimmed object changes no field manager's record but the writer's.
package cachetrim
