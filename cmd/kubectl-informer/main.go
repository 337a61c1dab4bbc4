package main
import (
 _ "k8s.io/client-go/kubernetes"
 _ "k8s.io/client-go/dynamic/dynamicinformer"
 _ "k8s.io/client-go/metadata/metadatainformer"
 _ "k8s.io/client-go/informers"
 _ "k8s.io/cli-runtime/pkg/genericclioptions"
 _ "k8s.io/cli-runtime/pkg/printers"
 _ "github.com/spf13/cobra"
 _ "github.com/olekukonko/tablewriter"
 _ "k8s.io/klog/v2"
 _ "go.uber.org/goleak"
 _ "sigs.k8s.io/yaml"
 _ "gopkg.in/evanphx/json-patch.v4"
 _ "k8s.io/client-go/util/jsonpath"
 _ "golang.org/x/term"
)
func main(){}
