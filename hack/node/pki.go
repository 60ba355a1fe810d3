package node

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/graft-dev/graft/test/framework"
)

// identity is a client certificate the cluster's CA signs: the user name is
// the certificate's common name, the groups its organizations, as
// kube-apiserver's --client-ca-file authenticator reads them.
type identity struct {
	file   string
	user   string
	groups []string
}

// The users are those Kubernetes' default RBAC policy already binds (the
// controller manager, the scheduler, kube-proxy as system:node-proxier); only
// the nodes' group needs a binding of ours (see bindNodes).
func identities(nodeName string) []identity {
	return []identity{
		{file: "kubelet", user: "system:node:" + nodeName, groups: []string{"system:nodes"}},
		{file: "kube-controller-manager", user: "system:kube-controller-manager"},
		{file: "kube-scheduler", user: "system:kube-scheduler"},
		{file: "kube-proxy", user: "system:kube-proxy"},
		// kube-apiserver's client for kubelet's API (logs, exec): kubelet
		// authorizes it through a SubjectAccessReview, which system:masters passes.
		{file: "apiserver-kubelet-client", user: "graft:apiserver-kubelet-client", groups: []string{"system:masters"}},
	}
}

// writePKI creates the cluster CA (which kube-apiserver trusts for client
// certificates and kube-controller-manager signs CSRs with) and one client
// certificate per identity, as PEM files in dir: NAME.crt readable by all,
// NAME.key by its owner only.
func writePKI(dir, nodeName string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := framework.NewCertAuthority("graft-local-node-ca")
	if err != nil {
		return err
	}
	if err := writeCertAndKey(dir, "ca", ca.CertPEM(), ca.KeyPEM()); err != nil {
		return err
	}
	for _, id := range identities(nodeName) {
		certPEM, keyPEM, err := ca.Issue(framework.CertRequest{CommonName: id.user, Organizations: id.groups})
		if err != nil {
			return err
		}
		if err := writeCertAndKey(dir, id.file, certPEM, keyPEM); err != nil {
			return err
		}
	}
	return nil
}

func writeCertAndKey(dir, name string, certPEM, keyPEM []byte) error {
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), certPEM, 0o644); err != nil {
		return fmt.Errorf("writing the certificate of %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), keyPEM, 0o600); err != nil {
		return fmt.Errorf("writing the key of %s: %w", name, err)
	}
	return nil
}
