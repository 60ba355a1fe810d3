package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"slices"
	"testing"
)

// parsePair parses a certificate and its key, failing when the key is not
// the certificate's.
func parsePair(t *testing.T, certPEM, keyPEM []byte) *x509.Certificate {
	t.Helper()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("parsing a certificate and its key: %v", err)
	}
	return pair.Leaf
}

func TestCertAuthorityIssuesClientCertificateWithGroups(t *testing.T) {
	ca, err := NewCertAuthority("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	// The CA key must be the CA certificate's: kube-controller-manager signs
	// with it for clients that trust the CA.
	caCert := parsePair(t, ca.CertPEM(), ca.KeyPEM())
	if !caCert.IsCA || caCert.Subject.CommonName != "test-ca" {
		t.Fatalf("CA certificate: IsCA %v, CN %q", caCert.IsCA, caCert.Subject.CommonName)
	}

	certPEM, keyPEM, err := ca.Issue(CertRequest{CommonName: "system:node:n1", Organizations: []string{"system:nodes", "extra"}})
	if err != nil {
		t.Fatal(err)
	}
	cert := parsePair(t, certPEM, keyPEM)
	if cert.Subject.CommonName != "system:node:n1" {
		t.Errorf("CN %q, want system:node:n1", cert.Subject.CommonName)
	}
	// The organizations are one DER SET, which encoding sorts; kube-apiserver
	// reads them as groups, so their order does not matter.
	if got := slices.Sorted(slices.Values(cert.Subject.Organization)); !slices.Equal(got, []string{"extra", "system:nodes"}) {
		t.Errorf("O %q, want system:nodes and extra", cert.Subject.Organization)
	}
	if !slices.Equal(cert.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) {
		t.Errorf("extended key usage %v, want client authentication only", cert.ExtKeyUsage)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate does not verify against the CA: %v", err)
	}
}

func TestCertAuthorityIssuesServingCertificate(t *testing.T) {
	ca, err := NewCertAuthority("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue(CertRequest{
		CommonName: "server",
		DNSNames:   []string{"localhost", "server.kube-system.svc"},
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cert := parsePair(t, certPEM, keyPEM)
	if len(cert.Subject.Organization) != 0 {
		t.Errorf("O %q, want none", cert.Subject.Organization)
	}
	if !slices.Equal(cert.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Errorf("extended key usage %v, want server authentication only", cert.ExtKeyUsage)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.CertPEM())
	for _, name := range []string{"localhost", "server.kube-system.svc", "127.0.0.1"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("serving certificate does not verify for %s: %v", name, err)
		}
	}
}
