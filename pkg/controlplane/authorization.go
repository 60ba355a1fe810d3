package controlplane

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// ServiceAccountGroups are the groups the API server puts a ServiceAccount of
// the namespace in when it authenticates with a token.
func ServiceAccountGroups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
}

// WaitAuthorized returns once the API server's authorizer allows the user,
// in the groups, the request described by attrs. A new (Cluster)RoleBinding
// reaches the RBAC authorizer through an informer, so a request sent right
// after creating the binding may still be refused; a test that means to
// exercise admission, or a command's output with the right granted, waits
// here first.
func WaitAuthorized(ctx context.Context, kube kubernetes.Interface, user string, groups []string, attrs authorizationv1.ResourceAttributes) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		review, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = review.Status.Reason
		return review.Status.Allowed, nil
	})
	if err != nil {
		return fmt.Errorf("%s may not %s %s/%s in namespace %q yet (%s): %w", user, attrs.Verb, attrs.Group, attrs.Resource, attrs.Namespace, last, err)
	}
	return nil
}
