package gencorpus

// MinResources is minResources, for the external tests.
const MinResources = minResources
