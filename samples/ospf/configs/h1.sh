# h1's startup script: runs with sh -e inside h1's namespace when it starts.
ip address add 10.0.1.10/24 dev eth0
ip route add default via 10.0.1.1
