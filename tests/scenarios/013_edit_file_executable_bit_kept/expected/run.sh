#!/bin/sh
echo bye
