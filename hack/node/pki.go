package node

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
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
// certificate per identity, as PEM files in dir.
func writePKI(dir, nodeName string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "graft-local-node-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return fmt.Errorf("signing the CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	if err := writeCertAndKey(dir, "ca", caDER, caKey); err != nil {
		return err
	}
	for _, id := range identities(nodeName) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return fmt.Errorf("generating the key of %s: %w", id.user, err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: id.user, Organization: id.groups},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
		if err != nil {
			return fmt.Errorf("signing the certificate of %s: %w", id.user, err)
		}
		if err := writeCertAndKey(dir, id.file, der, key); err != nil {
			return err
		}
	}
	return nil
}

func writeCertAndKey(dir, name string, certDER []byte, key crypto.Signer) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		// crypto/rand does not fail on Linux; a fixed serial would still make
		// a valid, if less unique, certificate.
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
