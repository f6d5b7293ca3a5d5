"""What users do with the model: sweeps, comparisons, explanations, plots, calibration,
`init`, and the speed benchmark."""
