from core.integers import divisors


def test_divisors_are_those_of_trial_division_up_to_n_and_their_limit():
    for n in range(1, 400):
        every = [d for d in range(1, n + 1) if n % d == 0]
        assert divisors(n) == every
        assert divisors(n, 24) == [d for d in every if d <= 24]
