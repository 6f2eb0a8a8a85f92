def test_truth():
    assert True
