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
// Everything else is kept. No daemon sends a cached object back (an
// eviction and a binding are patches naming only the fields they change,
// so nothing the cache lacks can be erased on the server), but
// graft-scheduler's binding tests the cached labels, annotations and
// status.networking against the server's.
package cachetrim
