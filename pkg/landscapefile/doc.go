// Package landscapefile owns reading a landscape from multi-document YAML: Seeds,
// Shoots, CloudProfiles and NamespacedCloudProfiles in graft's core.graft.dev/v1alpha1 or in Gardener's
// core.gardener.cloud/v1beta1 (converted on read by changing the apiVersion,
// since graft's types keep Gardener's field names, and given Gardener's
// semantics: every seed taint is NoSchedule, by garden.Convert, the conversion
// every read of a garden's API server goes through), and v1 ConfigMaps. Unknown
// fields are dropped, as the API server's pruning would; wrongly typed fields,
// malformed YAML and unknown kinds of graft's own group are errors naming the
// document. Documents of other kinds (Gardener Projects, Secrets, ...) are
// skipped and reported in Landscape.Skipped. `kind: List` documents, as
// `kubectl get -o yaml` writes them, are read item by item.
package landscapefile
