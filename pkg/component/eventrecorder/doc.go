// Package eventrecorder gives a component an Event recorder (client-go's
// record.EventBroadcaster, core/v1 Events) whose writes do not throttle the
// component: the broadcaster's correlator still aggregates and rate-limits
// events, but the resulting API writes are done by a pool of workers instead of
// one at a time. Shutdown flushes what is queued.
package eventrecorder
