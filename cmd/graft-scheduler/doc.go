// Command graft-scheduler binds pending shoots to seeds; see pkg/scheduler.
package main
