package garden

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/graft/pkg/component"
)

// Open returns the Client and Informers of the API a daemon's configuration
// names (api; empty is graft's), over the daemon's clients; on Gardener's API
// over gardener, or when nil a client built from clients.CustomResources.
// transform trims what the informers keep (cachetrim). It is the one place the
// daemons learn which API they are on.
func Open(api string, clients component.Clients, gardener Dynamic, transform cache.TransformFunc) (Client, Informers, error) {
	a, err := ConfiguredAPI(api)
	if err != nil {
		return nil, nil, err
	}
	dyn := gardener
	if a == Gardener && dyn == nil {
		if clients.CustomResources == nil {
			return nil, nil, fmt.Errorf("api %s needs the dynamic client", Gardener)
		}
		if dyn, err = NewDynamic(clients.CustomResources); err != nil {
			return nil, nil, fmt.Errorf("building the dynamic client: %w", err)
		}
	}
	client, err := New(a, clients.Graft, dyn)
	if err != nil {
		return nil, nil, err
	}
	informers, err := NewInformers(a, clients.Graft, dyn, transform)
	if err != nil {
		return nil, nil, err
	}
	return client, informers, nil
}
