package version

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/pkg/component/buildversion"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// Versions is what -o json and -o yaml print, with kubectl version's field
// names.
type Versions struct {
	ClientVersion *apimachineryversion.Info `json:"clientVersion,omitempty"`
	ServerVersion *apimachineryversion.Info `json:"serverVersion,omitempty"`
}

// Options are the flags of graftctl version.
type Options struct {
	// ClientOnly skips the server.
	ClientOnly bool
	// Output is "" (two lines), "json" or "yaml".
	Output string

	genericiooptions.IOStreams
}

// NewCommand returns `graftctl version`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the client and server versions",
		Long: `Print graftctl's version and, unless --client is given, the version of the
API server of the current context. When the server cannot be reached the
client version is still printed, and the command fails with the reason.`,
		Example: `  graftctl version
  graftctl version --client -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(f)
		},
	}
	cmd.Flags().BoolVar(&o.ClientOnly, "client", false, "print the client version only, without contacting the server")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "output format: json or yaml")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("--output must be json or yaml, not %q", o.Output)
}

// Run prints the versions. An unreachable server is an error returned after
// the client version has been printed.
func (o *Options) Run(f factory.Factory) error {
	client := buildversion.Get()
	v := Versions{ClientVersion: &client}
	var serverErr error
	if !o.ClientOnly {
		v.ServerVersion, serverErr = serverVersion(f)
	}
	if err := print(o.Out, o.Output, v); err != nil {
		return err
	}
	return serverErr
}

func serverVersion(f factory.Factory) (*apimachineryversion.Info, error) {
	kube, err := f.KubeClient()
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	info, err := kube.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	return info, nil
}

func print(w io.Writer, format string, v Versions) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	if v.ClientVersion != nil {
		fmt.Fprintf(w, "Client Version: %s\n", v.ClientVersion.GitVersion)
	}
	if v.ServerVersion != nil {
		fmt.Fprintf(w, "Server Version: %s\n", v.ServerVersion.GitVersion)
	}
	return nil
}
