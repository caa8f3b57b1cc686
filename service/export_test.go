package service

// CapacityFactorFixture serves the capacity factor fixture (cfFixtureService) to the
// package's external tests.
var CapacityFactorFixture = cfFixtureService
