# h2's startup script: runs with sh -e inside h2's namespace when it starts.
ip address add 10.0.2.10/24 dev eth0
ip route add default via 10.0.2.1
