// Package cachetrim owns what graft's daemons keep of an object in their
// informer caches. Transform is the transform (client-go's
// cache.TransformFunc) of every informer of graft-descheduler, of
// graft-capacity-annotator's seeds, and of graftctl drain's shoot informer.
// Placement is the transform of graft-capacity-annotator's shoots, Unbound
// that of every informer of graft-scheduler. After composes one of them
// with a conversion that must run first (graft-scheduler's conversion of
// Gardener's objects into graft's types).
//
// Transform drops metadata.managedFields, which no code path of theirs
// reads, from every object but Seeds: the one part of a cached object that
// grows with every field manager writing to it, about half of the heap a
// decoded Shoot with five writers takes (BenchmarkCachedShoot).
// graft-capacity-annotator reads a Seed's managedFields to tell whether the
// seed's agent publishes status.capacity, and a garden has few seeds (a
// landscape of 100,000 shoots has hundreds), so Seeds keep them.
//
// Of a Shoot, Transform also makes the strings many shoots share (namespace,
// labels, annotations, cloud profile, region, networks, provider, zones,
// seeds, tolerations) point to one copy each (intern.go): decoding gives
// every shoot its own copy of each. Values do not change.
//
// Everything else is kept. No daemon sends a cached object back (an
// eviction and a binding are patches naming only the fields they change,
// so nothing the cache lacks can be erased on the server), but
// graft-scheduler's binding tests the cached labels, annotations and
// status.networking against the server's, and the algorithm reads most of
// the spec.
//
// graft-capacity-annotator reads of a shoot only where it is placed: it
// counts shoots per seed (algorithm.ShootCounter) and writes no shoot.
// Placement keeps of a Shoot its namespace, name, resourceVersion and
// seed names, in a new object, so that the rest is garbage at once.
//
// graft-scheduler reads the whole of a shoot only while the shoot waits for
// a seed (to decide, explain and bind); a bound shoot only counts on its
// seeds, and an assumed binding is confirmed by its seed name or its
// resourceVersion. Unbound gives a shoot with spec.seedName Placement and
// any other object Transform; a shoot evicted from its seed comes back
// whole with the update that cleared spec.seedName.
package cachetrim
