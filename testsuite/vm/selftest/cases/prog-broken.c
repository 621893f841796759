/* Harness self-test: a test program that does not compile. */
int main(void)
{
	return not_declared;
}
