package main

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// The Widget custom resource.
const (
	widgetGroup   = "example.com"
	widgetVersion = "v1"
	widgetCRDName = "widgets." + widgetGroup
)

var widgetGVR = schema.GroupVersionResource{Group: widgetGroup, Version: widgetVersion, Resource: "widgets"}

// widgetCRD is widgets.example.com: namespaced, served and stored as v1,
// short name wg, with spec.color and spec.size, a status subresource, and
// printer columns for both fields.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   widgetCRDName,
			Labels: map[string]string{managedByLabel: managedByValue},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:     "widgets",
				Singular:   "widget",
				Kind:       "Widget",
				ListKind:   "WidgetList",
				ShortNames: []string{"wg"},
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:    widgetVersion,
				Served:  true,
				Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"spec": {
								Type: "object",
								Properties: map[string]apiextensionsv1.JSONSchemaProps{
									"color": {Type: "string"},
									"size":  {Type: "integer"},
								},
								// Tests may add fields of their own.
								XPreserveUnknownFields: &preserve,
							},
							"status": {
								Type:                   "object",
								XPreserveUnknownFields: &preserve,
							},
						},
					},
				},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Color", Type: "string", JSONPath: ".spec.color"},
					{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
	}
}

// installCRD creates widgets.example.com unless it exists and waits until
// it is Established, that is, served.
func installCRD(ctx context.Context, cfg *rest.Config) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating an apiextensions client: %w", err)
	}
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	if err := retry(ctx, func() error {
		_, err := crds.Create(ctx, widgetCRD(), metav1.CreateOptions{})
		return err
	}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", widgetCRDName, err)
	}
	began := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, widgetCRDName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s to be Established: %w", widgetCRDName, err)
	}
	// The first requests for a new CRD wait (about 2s) for its storage to
	// be ready; take that wait here, so that widgets are ready to use when
	// this returns.
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a dynamic client: %w", err)
	}
	if err := retry(ctx, func() error {
		_, err := dyn.Resource(widgetGVR).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}); err != nil {
		return fmt.Errorf("listing widgets: %w", err)
	}
	fmt.Printf("seed: CRD %s established (%s)\n", widgetCRDName, time.Since(began).Round(10*time.Millisecond))
	return nil
}
