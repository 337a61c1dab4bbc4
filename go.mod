module github.com/kubectl-informer/kubectl-informer

go 1.26.0
