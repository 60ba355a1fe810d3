package controlplane

import (
	"context"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// WriteServiceAccountKubeconfig writes a kubeconfig for the API server of
// admin that authenticates as the ServiceAccount namespace/name, with a token
// from the TokenRequest API valid for three hours, so that a component run
// by a test has exactly the permissions its chart grants.
func WriteServiceAccountKubeconfig(ctx context.Context, admin *rest.Config, namespace, name, path string) error {
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3 * 3600)}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		if ca, err = os.ReadFile(admin.CAFile); err != nil {
			return err
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["garden"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: ca, InsecureSkipTLSVerify: admin.Insecure, TLSServerName: admin.ServerName}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["garden"] = &clientcmdapi.Context{Cluster: "garden", AuthInfo: name}
	cfg.CurrentContext = "garden"
	return clientcmd.WriteToFile(*cfg, path)
}
