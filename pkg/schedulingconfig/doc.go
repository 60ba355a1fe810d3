// Package schedulingconfig owns the scheduling configuration as graft-scheduler
// applies and publishes it: the translation of a component configuration's
// strategy and score weights into the algorithm's Config (the scheduler and
// the descheduler both use it, so that the descheduler's requireFit asks
// exactly what the scheduler decides), the versioned form the scheduler's
// leader writes onto its leader election Lease (with the namespace it reads
// region ConfigMaps from), and how it is read back (Read): by graftctl, with
// its own flags as an override, and by graft-descheduler at start.
//
// Keeping the translation here leaves pkg/algorithm free of the component
// config API: it imports only the core API.
package schedulingconfig
