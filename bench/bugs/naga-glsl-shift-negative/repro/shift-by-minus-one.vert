#version 450

void main()
{
  int x = 1 << -1;
}
