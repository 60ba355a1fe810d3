package noexecutetaints

// Name is the plugin's configuration name.
const Name = "NoExecuteTaints"

// Args are the plugin's arguments.
type Args struct {
	// Force evicts even when no other seed fits the shoot right now
	// (overriding requireFit), and also moves shoots annotated
	// graft.dev/evict: "false".
	Force bool `json:"force,omitempty"`
	// TaintKeys, when set, restricts the plugin to NoExecute taints with these
	// keys; other NoExecute taints are left alone. Empty means every taint.
	TaintKeys []string `json:"taintKeys,omitempty"`
}
