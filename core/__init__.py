"""What every floor shares: the one unit registry (with information and currency dimensions), the error
hierarchy, and field declarations. No physics; imports nothing from the packages above it."""
